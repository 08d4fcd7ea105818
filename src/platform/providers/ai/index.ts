import type { AppConfig, Env } from '../../../config/index';
import type { AiProvider } from './types';
import { WorkersAiProvider } from './workers-ai';

/** The copilot's model: the Workers AI binding when the deployment has one (docs/copilot.md), else none. */
export function aiFor(env: Pick<Env, 'AI'>, config: Pick<AppConfig, 'copilot'>): AiProvider | null {
  return env.AI ? new WorkersAiProvider(env.AI, config.copilot.model) : null;
}

export type { AiProvider, JsonGenerationRequest } from './types';
