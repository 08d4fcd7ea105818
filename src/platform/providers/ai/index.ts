export type { AiProvider, JsonGenerationRequest } from './types';
export { AiProviderError } from './types';
export { WorkersAiProvider, parseModelAnswer } from './workers-ai';
