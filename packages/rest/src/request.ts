// @k/rest/request: request descriptions without a client — for code that runs a
// `RequestBuilder` through its own `RequestRunner`, or sends a `RestRequest` itself.
export type { ParamValue, RequestDefaults } from './request/request-builder.js';
export type { RequestRunner } from './request/request-runner.js';
export type { HttpMethod, RequestBody, RestRequest } from './request/rest-request.js';
export { requestUrl, withParams } from './request/rest-request.js';
export type { PatchType } from './request/patch-type.js';
export { DEFAULT_ACCEPT, JSON_CONTENT_TYPE, PATCH_CONTENT_TYPES } from './request/patch-type.js';
export type { RestResponse } from './response/rest-response.js';
