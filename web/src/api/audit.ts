import { useInfiniteQuery } from '@tanstack/react-query';
import type { ApiData } from '../../../src/client/types';
import { api, unwrap } from './client';

/** The organization's audit log, a page at a time (newest first), and its NDJSON download. */

type AuditPage = ApiData<'/v2/organization/{orgId}/audit', 'get'>;
export type AuditRecord = AuditPage['records'][number];

export interface AuditFilters {
  operation: string;
  userId: string;
  targetId: string;
  /** `datetime-local` values (the person's time), '' for none. */
  from: string;
  to: string;
}

const PAGE = 50;

/** The filters as query parameters: times in ISO 8601, blanks left out. */
export function auditQuery(f: AuditFilters): Record<string, string> {
  const q: Record<string, string> = {};
  if (f.operation.trim()) q.operation = f.operation.trim();
  if (f.userId) q.userId = f.userId;
  if (f.targetId.trim()) q.targetId = f.targetId.trim();
  if (f.from) q.from = new Date(f.from).toISOString();
  if (f.to) q.to = new Date(f.to).toISOString();
  return q;
}

export function useAuditRecords(orgId: string, filters: AuditFilters) {
  const query = auditQuery(filters);
  return useInfiniteQuery({
    queryKey: ['org', orgId, 'audit', query],
    initialPageParam: '',
    queryFn: ({ pageParam }) =>
      unwrap<AuditPage>(
        'GET',
        '/v2/organization/{orgId}/audit',
        api.GET('/v2/organization/{orgId}/audit', {
          params: { path: { orgId }, query: { ...query, limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    retry: false,
  });
}

/** The export's address with the same filters: a plain link, the session cookie goes with it. */
export function auditExportHref(orgId: string, filters: AuditFilters): string {
  const params = new URLSearchParams(auditQuery(filters)).toString();
  return `/v2/organization/${encodeURIComponent(orgId)}/audit/export${params ? `?${params}` : ''}`;
}
