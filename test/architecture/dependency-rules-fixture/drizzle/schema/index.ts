// Breaks schema-imports-nothing.
import { configValue } from '../../src/config';
export const schemaValue = configValue;
