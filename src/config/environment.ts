/** Which deployment this is; anything that is not development or test is production (src/config/index.ts). */
export type Environment = 'production' | 'development' | 'test';
