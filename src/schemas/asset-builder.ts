import { Type } from 'typebox';
import { FreeObject } from './common.js';

/**
 * Asset builder templates (the [client]'s `assetBuilderTemplates`): an HTML template with
 * `{{column}}` placeholders that the client fills from a table of rows to build each asset's
 * content, which it then imports with `/cloud` and `uploadLocal: true`.
 */

const ColumnName = Type.String({ minLength: 1, maxLength: 200 });

export const DataColumnConfig = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 50, description: 'kind of value: text, image, video, url, ...' }),
    storage: Type.Optional(
      Type.String({ maxLength: 200, description: 'where the value lives: public, a storage id, ...' }),
    ),
    include_in_export: Type.Optional(Type.Boolean({ description: 'export the column with the asset (default true)' })),
  },
  { additionalProperties: true },
);

export const AssetBuilderTemplateRequest = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  template: Type.String({ minLength: 1, maxLength: 1_048_576, description: 'HTML with {{column}} placeholders' }),
  data_config: Type.Record(ColumnName, DataColumnConfig, {
    description: 'the columns of the rows the template is filled from',
  }),
  external_id_column: Type.String({ minLength: 1, maxLength: 200, description: 'column giving the externalId' }),
  batchColumn: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'column naming the batch' })),
  pre_label_config: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({ ...FreeObject, description: 'how columns become pre-labels; kept as sent' }),
  ),
});
