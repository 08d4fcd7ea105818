// Breaks config-imports-nothing.
import { platformValue } from '../platform/value';
export const configValue = platformValue;
