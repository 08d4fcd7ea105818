import { type AiBinding, DEFAULT_COPILOT_MODEL } from '../../../config';
import { ProviderError } from '../errors';
import type { AiProvider, JsonGenerationRequest } from './types';

/** Workers AI answers JSON-mode requests with { response: object } or { response: "<json text>" }. */
export function parseModelAnswer(result: unknown): unknown {
  const response = (result as { response?: unknown } | null)?.response;
  if (response !== null && typeof response === 'object') return response;
  if (typeof response !== 'string' || !response.trim())
    throw new ProviderError('ai', 'workers-ai', 'refused', 'the model answered no text');
  // Some models wrap JSON in a Markdown fence despite JSON mode.
  const text = response
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError('ai', 'workers-ai', 'refused', 'the model answered text that is not JSON');
  }
}

/**
 * The production AI provider: Cloudflare Workers AI through the Worker's AI binding. Every call goes to
 * Cloudflare's network (also under `wrangler dev`), so the binding is configured per deployment
 * (docs/copilot.md), never in the default wrangler.toml.
 */
export class WorkersAiProvider implements AiProvider {
  readonly name = 'workers-ai';

  constructor(
    private readonly binding: AiBinding,
    readonly model: string = DEFAULT_COPILOT_MODEL,
  ) {}

  async generateJson(request: JsonGenerationRequest): Promise<unknown> {
    let result: unknown;
    try {
      result = await this.binding.run(this.model, {
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.prompt },
        ],
        response_format: { type: 'json_schema', json_schema: request.schema },
        max_tokens: request.maxTokens,
        temperature: 0.2,
      });
    } catch (error) {
      throw new ProviderError(
        'ai',
        'workers-ai',
        'unavailable',
        `Workers AI call failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`,
      );
    }
    return parseModelAnswer(result);
  }
}
