// Breaks no-circular (with circle-b.ts).
import { b } from './circle-b';
export const a = (): number => b() + 1;
