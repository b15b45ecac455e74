import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  type RowSelectionState,
  useReactTable,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import { Link } from 'react-router';
import type { TaskRow } from '../../api/tasks';

/** Columns the server sorts by (docs/api.md); others are shown only. */
const SORTABLE = new Set(['externalId', 'stage', 'status', 'priority', 'createdAt', 'updatedAt']);
const ROW_HEIGHT = 34;

const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : '');

/** The table's columns; `benchmarks` (Managers) marks benchmark tasks beside their id. */
const columnsFor = (benchmarks: boolean): ColumnDef<TaskRow>[] => [
  {
    id: 'select',
    header: ({ table }) => (
      <input
        type="checkbox"
        aria-label="Select every task on this page"
        checked={table.getIsAllRowsSelected()}
        onChange={table.getToggleAllRowsSelectedHandler()}
      />
    ),
    cell: ({ row }) => (
      <input
        type="checkbox"
        aria-label={`Select ${row.original.externalId ?? row.original._id}`}
        checked={row.getIsSelected()}
        onChange={row.getToggleSelectedHandler()}
      />
    ),
  },
  {
    accessorKey: 'externalId',
    header: 'External id',
    // Relative to the tasks route: /projects/:projectId/tasks/:taskId.
    cell: ({ row }) => (
      <>
        <Link to={row.original._id}>{row.original.externalId ?? row.original._id}</Link>
        {benchmarks && row.original.type === 'benchmark' && <span className="badge">Benchmark</span>}
      </>
    ),
  },
  { accessorKey: 'stage', header: 'Stage' },
  { accessorKey: 'status', header: 'Status' },
  { accessorKey: 'priority', header: 'Priority' },
  { accessorKey: 'assignee', header: 'Assignee' },
  { accessorKey: 'reviewStatus', header: 'Review' },
  { accessorKey: 'updatedAt', header: 'Updated', cell: ({ getValue }) => when(getValue<string | undefined>()) },
];

/**
 * One server page of tasks; the rows drawn are only those in view (a page may hold 1000).
 * Sorting is the server's: a header click changes the `sort` asked for.
 */
export function TaskTable({
  rows,
  sort,
  onSort,
  selection,
  onSelection,
  benchmarks = false,
}: {
  rows: TaskRow[];
  sort: string;
  onSort: (sort: string) => void;
  selection: RowSelectionState;
  onSelection: (s: RowSelectionState) => void;
  benchmarks?: boolean;
}) {
  const columns = useMemo(() => columnsFor(benchmarks), [benchmarks]);
  const table = useReactTable({
    data: rows,
    columns,
    getRowId: (r) => r._id,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    state: { rowSelection: selection },
    onRowSelectionChange: (u) => onSelection(typeof u === 'function' ? u(selection) : u),
  });
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtual.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtual.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const key = sort.replace(/^-/, '');
  const descending = sort.startsWith('-');
  return (
    <div ref={scroller} className="task-scroll">
      <table className="table compact task-table" aria-label="Tasks" aria-rowcount={rows.length + 1}>
        <thead>
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => {
                const id = h.column.id;
                const label = flexRender(h.column.columnDef.header, h.getContext());
                if (!SORTABLE.has(id))
                  return (
                    <th key={h.id} scope="col">
                      {label}
                    </th>
                  );
                const active = key === id;
                return (
                  <th key={h.id} scope="col" aria-sort={active ? (descending ? 'descending' : 'ascending') : 'none'}>
                    <button
                      type="button"
                      className="link"
                      onClick={() => onSort(active && !descending ? `-${id}` : id)}
                    >
                      {label}
                      {active ? (descending ? ' ↓' : ' ↑') : ''}
                    </button>
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padTop }} colSpan={columns.length} />
            </tr>
          )}
          {items.map((v) => {
            const row = table.getRowModel().rows[v.index];
            if (!row) return null;
            return (
              <tr key={row.id} style={{ height: ROW_HEIGHT }} className={row.getIsSelected() ? 'row-selected' : ''}>
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden="true">
              <td style={{ height: padBottom }} colSpan={columns.length} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
