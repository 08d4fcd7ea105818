// Breaks areas-not-composition-roots.
import { appValue } from '../../app';
export const storefrontUsesApp = appValue;
