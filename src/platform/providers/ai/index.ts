export type { AiProvider, JsonGenerationRequest } from './types';
export { parseModelAnswer, WorkersAiProvider } from './workers-ai';
