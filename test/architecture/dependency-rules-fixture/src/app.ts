// Breaks src-not-scripts-or-tests.
import { testValue } from '../test/value';
export const appValue = testValue;
