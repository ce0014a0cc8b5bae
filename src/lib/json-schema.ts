import { isIP } from 'node:net';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

// ajv-formats is not installed, so the formats senders use most are defined here. Each check is
// deliberately plain: a format that is too clever rejects payloads the sender's own validator took.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?$/i;
const EMAIL = /^[^\s@"<>()[\],;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const HOSTNAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const UUID = /^(?:urn:uuid:)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

const validDate = (text: string): boolean => {
    const m = DATE.exec(text);
    if (!m) return false;
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days;
};

/** The string formats known to `jsonSchema`; any other format name is ignored, as ajv does. */
export const SCHEMA_FORMATS: Record<string, (text: string) => boolean> = {
    date: validDate,
    time: (t) => TIME.test(t),
    'date-time': (t) => {
        const [date, time, extra] = t.split(/[Tt ]/);
        return extra === undefined && date !== undefined && time !== undefined && validDate(date) && TIME.test(time) && /[zZ]|[+-]\d\d:?\d\d$/.test(time);
    },
    duration: (t) => DURATION.test(t),
    email: (t) => EMAIL.test(t),
    hostname: (t) => HOSTNAME.test(t),
    ipv4: (t) => isIP(t) === 4,
    ipv6: (t) => isIP(t) === 6,
    uri: (t) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(t) && URL.canParse(t),
    'uri-reference': (t) => !/\s/.test(t),
    uuid: (t) => UUID.test(t),
    regex: (t) => {
        try {
            new RegExp(t, 'u');
            return true;
        } catch {
            return false;
        }
    },
};

const OPTIONS: Options = { allErrors: true, strict: false, logger: false, formats: SCHEMA_FORMATS };
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles a JSON Schema once per schema object (config validation and the ingest step share the
 * result). Throws ajv's error when the schema itself is invalid.
 */
export function compileJsonSchema(schema: Record<string, unknown>): ValidateFunction {
    let validate = compiled.get(schema);
    if (!validate) {
        // One ajv per schema: a schema's `$id` may repeat across services started in one process.
        const draft = String(schema.$schema ?? '');
        const ajv = draft.includes('2020-12') ? new Ajv2020(OPTIONS) : draft.includes('2019-09') ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
        validate = ajv.compile(schema);
        compiled.set(schema, validate);
    }
    return validate;
}
