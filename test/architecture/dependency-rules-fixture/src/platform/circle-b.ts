import { a } from './circle-a';
export const b = (): number => (a.length > 1 ? 0 : 1);
