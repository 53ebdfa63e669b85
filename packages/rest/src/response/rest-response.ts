/** RestResponse is a decoded response with its status code and headers (lowercase names). */
export interface RestResponse<T> {
  statusCode: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  object: T;
}
