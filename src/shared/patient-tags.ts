/*
 * DICOM attributes that identify a patient, left out of what leaves the server (exports, webhook
 * payloads) unless the project opts in (`patientTagsExported`). Chosen from the Basic Application
 * Level Confidentiality Profile of DICOM PS3.15 (Annex E): the patient's identity and
 * demographics, and the study attributes that lead back to them. An asset's metadata names them
 * as a client put them: by keyword (`PatientName`) or by tag (`00100010`, `0010,0010`,
 * `(0010,0010)`, `x00100010`), at any depth (`{"dicom": {"PatientID": ...}}`).
 */
export const PATIENT_TAGS: readonly (readonly [keyword: string, tag: string])[] = [
  ['PatientName', '00100010'],
  ['PatientID', '00100020'],
  ['IssuerOfPatientID', '00100021'],
  ['PatientBirthDate', '00100030'],
  ['PatientBirthTime', '00100032'],
  ['PatientSex', '00100040'],
  ['OtherPatientIDs', '00101000'],
  ['OtherPatientNames', '00101001'],
  ['PatientBirthName', '00101005'],
  ['PatientAge', '00101010'],
  ['PatientSize', '00101020'],
  ['PatientWeight', '00101030'],
  ['PatientAddress', '00101040'],
  ['PatientMotherBirthName', '00101060'],
  ['MedicalRecordLocator', '00101090'],
  ['PatientTelephoneNumbers', '00102154'],
  ['EthnicGroup', '00102160'],
  ['PatientComments', '00104000'],
  ['AccessionNumber', '00080050'],
  ['InstitutionName', '00080080'],
  ['InstitutionAddress', '00080081'],
  ['ReferringPhysicianName', '00080090'],
  ['StudyID', '00200010'],
];

const KEYS = new Set(PATIENT_TAGS.flatMap(([keyword, tag]) => [keyword.toLowerCase(), tag.toLowerCase()]));
/** Any text that could hold one of the keys: others are passed on as they are, unparsed. */
const MAYBE = /patient|accession|institution|physician|studyid|medicalrecord|ethnic|00(?:08|10|20)/i;

/** The key as compared: a keyword lower-cased, a tag as its eight hex digits. */
function keyOf(name: string): string {
  const tag = /^\(?x?([0-9a-f]{4}),?([0-9a-f]{4})\)?$/i.exec(name);
  return tag ? `${tag[1]}${tag[2]}`.toLowerCase() : name.toLowerCase();
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!KEYS.has(keyOf(k))) out[k] = strip(v);
  return out;
}

/** Stored metadata (JSON text) without the patient's tags; the text itself when it holds none. */
export function withoutPatientTags(stored: string | null): string {
  const text = stored ?? '{}';
  if (!MAYBE.test(text)) return text;
  try {
    return JSON.stringify(strip(JSON.parse(text)));
  } catch {
    return text;
  }
}
