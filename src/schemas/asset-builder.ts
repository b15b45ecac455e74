import { Type } from 'typebox';
import { FreeObject } from './common.js';

/**
 * Asset builder templates (the [client]'s `assetBuilderTemplates`): an HTML template with
 * `{{column}}` placeholders that the client fills from a table of rows to build each asset's
 * content, which it then imports with `/cloud` and `uploadLocal: "true"`.
 *
 * The client sends camelCase (`dataConfig`, `selectedExternalId`, `preLabelConfig`,
 * `includeInExport`); the snake_case shape of earlier notes (`data_config`,
 * `external_id_column`, `pre_label_config`, `include_in_export`) is accepted too. Templates are
 * stored and answered in camelCase, the keys the client reads back.
 */

const ColumnName = Type.String({ minLength: 1, maxLength: 200 });

/** Column kinds the client knows; image, audio, video and pdf columns name a `storage`. */
export const COLUMN_TYPES = ['text', 'link', 'image', 'audio', 'video', 'iframe', 'pdf'] as const;
export const MEDIA_COLUMN_TYPES: readonly string[] = ['image', 'audio', 'video', 'pdf'];

export const DataColumnConfig = Type.Object(
  {
    type: Type.String({
      minLength: 1,
      maxLength: 50,
      description: `kind of value: ${COLUMN_TYPES.join(', ')} (checked in the camelCase shape)`,
    }),
    storage: Type.Optional(Type.String({ maxLength: 200, description: 'where media live: `Public` or a storage id' })),
    includeInExport: Type.Optional(Type.Boolean({ description: 'the column goes into the asset contextData' })),
    include_in_export: Type.Optional(Type.Boolean({ description: 'snake_case form of includeInExport' })),
  },
  { additionalProperties: true },
);

const Columns = Type.Record(ColumnName, DataColumnConfig, {
  description: 'the columns of the rows the template is filled from',
});
const PreLabels = Type.Unsafe<Record<string, unknown>>({
  ...FreeObject,
  description: 'how columns become pre-labels (`{key: {cla, value: column}}`); kept as sent',
});

export const AssetBuilderTemplateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  template: Type.String({ minLength: 1, maxLength: 1_048_576, description: 'HTML with {{column}} placeholders' }),
  dataConfig: Type.Optional(Columns),
  data_config: Type.Optional(Columns),
  selectedExternalId: Type.Optional(Type.String({ maxLength: 200, description: 'column giving the externalId' })),
  external_id_column: Type.Optional(Type.String({ maxLength: 200, description: 'snake_case selectedExternalId' })),
  batchColumn: Type.Optional(
    Type.String({ maxLength: 200, description: 'column naming the batches (`;`-separated); empty: none' }),
  ),
  preLabelConfig: Type.Optional(PreLabels),
  pre_label_config: Type.Optional(PreLabels),
});
