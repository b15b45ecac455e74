import { useMutation } from '@tanstack/react-query';
import type { ApiData, ApiQuery } from '../../../src/client/types';
import { api, unwrap } from './client';

/**
 * Project exports (GET /v2/exportV3, docs/exports-and-metrics.md): the request writes the whole
 * zip on the server and answers a link that needs no key, good for 24 hours. There is no list
 * of earlier exports in the API: the page keeps the links it made (exports-history.ts).
 */

export type ExportQuery = ApiQuery<'/v2/exportV3', 'get'>;
export type ExportAnswer = ApiData<'/v2/exportV3', 'get'>;

export function useRunExport() {
  return useMutation({
    mutationFn: (query: ExportQuery) =>
      unwrap<ExportAnswer>('GET', '/v2/exportV3', api.GET('/v2/exportV3', { params: { query } })),
  });
}
