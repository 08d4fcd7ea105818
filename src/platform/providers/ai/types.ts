/** One request for a JSON answer: instructions, the user's material and the JSON Schema the answer must follow. */
export interface JsonGenerationRequest {
  /** Instructions (the system message). */
  system: string;
  /** The material to work on (the user message). */
  prompt: string;
  /** JSON Schema of the expected answer (Workers AI's JSON mode enforces it where the model supports it). */
  schema: Record<string, unknown>;
  maxTokens: number;
}

/**
 * A language model, as far as this API uses it: one call that answers JSON. Production: the Workers
 * AI binding (WorkersAiProvider). Tests use a fake that records the request and answers a fixture.
 * Callers validate the answer themselves: a model's JSON is untrusted input.
 */
export interface AiProvider {
  /** workers-ai | fake: for logs and answers. */
  readonly name: string;
  /** The model name, e.g. @cf/meta/llama-3.3-70b-instruct-fp8-fast. */
  readonly model: string;
  /** The parsed JSON answer; throws ProviderError (capability ai) when the model fails or answers no JSON. */
  generateJson(request: JsonGenerationRequest): Promise<unknown>;
}
