/** DATA_OMITTED is the marker kubectl prints instead of certificate and key bytes. */
export const DATA_OMITTED = 'DATA+OMITTED';
/** REDACTED is the marker kubectl prints instead of a token or password. */
export const REDACTED = 'REDACTED';
