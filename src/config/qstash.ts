import { DEFAULT_QSTASH_URL } from './endpoints';
import type { Environment } from './environment';
import { ConfigError } from './errors';

/** The Worker variables QStash delivery reads (docs/webhooks.md, "Who sends"). */
export interface QStashEnv {
  /** QStash (Upstash) carries webhook deliveries in production: token, signing keys, and where it calls us back. */
  QSTASH_TOKEN?: string;
  /** QStash API base URL (default https://qstash.upstash.io; a regional URL or a local stand-in otherwise). */
  QSTASH_URL?: string;
  QSTASH_CURRENT_SIGNING_KEY?: string;
  QSTASH_NEXT_SIGNING_KEY?: string;
  /** This Worker's public https origin; QStash calls <origin>/internal/qstash/webhook-deliveries. */
  PUBLIC_BASE_URL?: string;
}

export interface QStashConfig {
  token: string;
  baseUrl: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** The absolute URL QStash calls for every delivery attempt. */
  callbackUrl: string;
}

/** Where QStash calls back (mounted at the host root, outside /api/v1: no API key, a QStash signature). */
export const QSTASH_CALLBACK_PATH = '/internal/qstash/webhook-deliveries';

/**
 * QSTASH_TOKEN, both signing keys and PUBLIC_BASE_URL together, or none of them (the local dispatcher
 * then delivers). Production needs them: the cron dispatcher alone would deliver at most once a minute.
 */
export function readQStashConfig(env: QStashEnv, environment: Environment): QStashConfig | null {
  const parts = [env.QSTASH_TOKEN, env.QSTASH_CURRENT_SIGNING_KEY, env.QSTASH_NEXT_SIGNING_KEY, env.PUBLIC_BASE_URL];
  if (parts.every((part) => !part)) {
    if (environment === 'production') {
      throw new ConfigError(
        'QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY and PUBLIC_BASE_URL are required in production (webhook delivery)',
      );
    }
    return null;
  }
  if (parts.some((part) => !part)) {
    throw new ConfigError('Set all of QSTASH_TOKEN, QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY and PUBLIC_BASE_URL, or none');
  }
  let origin: URL;
  try {
    origin = new URL(env.PUBLIC_BASE_URL!);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL must be an absolute URL such as https://api.example.com');
  }
  if (environment === 'production' && origin.protocol !== 'https:') throw new ConfigError('PUBLIC_BASE_URL must be https in production');
  return {
    token: env.QSTASH_TOKEN!,
    baseUrl: env.QSTASH_URL || DEFAULT_QSTASH_URL,
    currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!,
    nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY!,
    callbackUrl: new URL(QSTASH_CALLBACK_PATH, origin.origin).toString(),
  };
}
