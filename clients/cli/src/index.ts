// The commands of @brand-admin/cli as functions (bin.ts is the command line itself).
export { type CliIo, DEFAULT_BASE_URL, runCli, USAGE } from './cli';
export {
  type ForwardResult,
  forwardEvent,
  forwardLine,
  type ListedEvent,
  type ListenOptions,
  listen,
  newLocalSecret,
  signedDelivery,
} from './listen';
