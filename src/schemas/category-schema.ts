import { Type, type Static } from 'typebox';
import { HexColor, KEEP_UNKNOWN, FreeObject, OptionalField, Nullable, StringEnum } from './common.js';

/**
 * The ontology (`categorySchema`) of the contract. Shape only: uniqueness of schemaIds, the
 * pct-only fields and relation kinds per project type are checked by services/projects/ontology.ts.
 * Unknown properties are kept as sent, so no object forbids additional properties.
 * Static types describe the stored form (optional nulls removed, pct sizes as strings).
 */

export const TOOL_KINDS = [
  'bounding-box',
  'polygon',
  'polyline',
  'point',
  'rotated-bounding-box',
  'segmentation',
  'brush',
  'medical-brush',
  'ner',
  'pdf',
  'pct',
  'angle',
] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

export const CLASSIFICATION_KINDS = [
  'radio',
  'checkbox',
  'single-dropdown',
  'multi-dropdown',
  'tree-dropdown',
  'single-tree-dropdown',
  'text',
  'boolean',
] as const;
export type ClassificationKind = (typeof CLASSIFICATION_KINDS)[number];

export const RELATION_KINDS = ['one-to-one', 'group', 'one-to-many'] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

export const MARKING_TOOLS = ['polygon', 'polygon2d', 'polyline', 'polyline2d', 'cuboid', 'rectangle'] as const;
export const ATTRIBUTE_LEVELS = ['Class Level', 'Instance Level'] as const;
export const ATTRIBUTE_MODES = ['Time Varying', 'Constant', 'Sensor Specific'] as const;

const flag = () => OptionalField(Type.Boolean({ default: false }));
const text = () => OptionalField(Type.String());
const schemaId = () => Type.String({ minLength: 1 });
/** pct sizes: numbers are accepted on the wire and stored as strings (contract, Tool table). */
const pctSize = () => OptionalField(Type.Unsafe<string>({ type: ['string', 'number'] }));
const markingTools = () => OptionalField(Type.Array(StringEnum(MARKING_TOOLS)));

const defs = {
  ClassificationOption: Type.Object(
    {
      schemaId: schemaId(),
      value: Type.String(),
      label: OptionalField(Type.String({ description: 'deprecated, use value' })),
      children: OptionalField(Type.Array(Type.Ref('Classification'))),
    },
    KEEP_UNKNOWN,
  ),
  Classification: Type.Object(
    {
      schemaId: schemaId(),
      title: Type.String(),
      tool: StringEnum(CLASSIFICATION_KINDS),
      color: OptionalField(HexColor),
      required: flag(),
      columnField: flag(),
      frameSpecific: flag(),
      showDropdown: flag(),
      richText: flag(),
      multiple: flag(),
      shortcutKey: text(),
      // The contract types these two as "string or null": null is a value here, kept as sent.
      regex: Type.Optional(Nullable(Type.String())),
      parentOptionId: Type.Optional(Nullable(Type.String())),
      options: OptionalField(Type.Array(Type.Ref('ClassificationOption'))),
      treeOptions: OptionalField(Type.Array(FreeObject)),
      classifications: OptionalField(Type.Array(Type.Ref('Classification'))),
      defaultValue: OptionalField(Type.Unsafe<boolean | string | number>({ type: ['boolean', 'string', 'number'] })),
      parentToolType: text(),
      parentToolId: text(),
      exportName: text(),
      displayName: text(),
      abbreviatedName: text(),
      attributeLevel: OptionalField(StringEnum(ATTRIBUTE_LEVELS)),
      attributeMode: OptionalField(StringEnum(ATTRIBUTE_MODES)),
      associatedMarkingTool: markingTools(),
    },
    KEEP_UNKNOWN,
  ),
  Tool: Type.Object(
    {
      schemaId: schemaId(),
      title: Type.String(),
      tool: StringEnum(TOOL_KINDS),
      required: flag(),
      color: OptionalField(HexColor),
      shortcutKey: text(),
      classifications: OptionalField(Type.Array(Type.Ref('Classification'))),
      multiple: flag(),
      ocrEnabled: OptionalField(Type.Boolean()),
      areaImage: OptionalField(
        Type.Boolean({
          description:
            "`pdf` tools: an area dragged with Alt keeps its picture as `content.image` (a PNG data URL, at the resolution the page is shown); without it an area's `content` is `{}`",
        }),
      ),
      exportName: text(),
      displayName: text(),
      abbreviatedName: text(),
      markingTools: markingTools(),
      truncate: flag(),
      presetCuboidDimensions: flag(),
      keypointWithVerticalLine: flag(),
      hasInstance: flag(),
      cuboidLength: pctSize(),
      cuboidWidth: pctSize(),
      cuboidHeight: pctSize(),
      edgeLengthConstraint: pctSize(),
    },
    KEEP_UNKNOWN,
  ),
  Relation: Type.Object(
    {
      schemaId: schemaId(),
      title: Type.String(),
      tool: StringEnum(RELATION_KINDS),
      color: OptionalField(HexColor),
      required: flag(),
      classifications: OptionalField(Type.Array(Type.Ref('Classification'), { default: [] })),
      multiple: flag(),
      shortcutKey: text(),
      parentTool: text(),
      childTools: OptionalField(Type.Array(Type.String())),
    },
    KEEP_UNKNOWN,
  ),
  CategorySchema: Type.Object(
    {
      tools: OptionalField(Type.Array(Type.Ref('Tool'))),
      classifications: OptionalField(Type.Array(Type.Ref('Classification'))),
      relations: OptionalField(Type.Array(Type.Ref('Relation'))),
    },
    KEEP_UNKNOWN,
  ),
};

/** The definitions, for callers that build their own cyclic schema around the ontology. */
export const CATEGORY_SCHEMA_DEFS = defs;

export const CategorySchema = Type.Cyclic(defs, 'CategorySchema');
export type CategorySchema = Static<typeof CategorySchema>;
export const Tool = Type.Cyclic(defs, 'Tool');
export type Tool = Static<typeof Tool>;
export const Classification = Type.Cyclic(defs, 'Classification');
export type Classification = Static<typeof Classification>;
export const ClassificationOption = Type.Cyclic(defs, 'ClassificationOption');
export type ClassificationOption = Static<typeof ClassificationOption>;
export const Relation = Type.Cyclic(defs, 'Relation');
export type Relation = Static<typeof Relation>;

/** Names of the declared properties, so the validator can tell known fields from extras. */
export const KNOWN_FIELDS = {
  tool: Object.keys(defs.Tool.properties),
  classification: Object.keys(defs.Classification.properties),
  option: Object.keys(defs.ClassificationOption.properties),
  relation: Object.keys(defs.Relation.properties),
  categorySchema: Object.keys(defs.CategorySchema.properties),
} as const;
