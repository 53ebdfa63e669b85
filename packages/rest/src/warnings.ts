// @k/rest/warnings: what becomes of the server's `Warning` headers — the default logger, your own
// handler (`warningHandler`), or none.
export { WarningLogger, NO_WARNINGS } from './response/warning-handler.js';
export type {
  WarningHandler,
  WarningHeader,
  WarningLoggerOptions,
} from './response/warning-handler.js';
