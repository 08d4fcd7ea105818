export type { AiProvider, JsonGenerationRequest } from './types';
export { WorkersAiProvider, parseModelAnswer } from './workers-ai';
