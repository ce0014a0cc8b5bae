import { NotFoundError } from '../errors.js';
import { subjectOfEntry, type FilterSubject } from '../filters/subject.js';
import type { BodyReader } from '../storage/roles.js';
import { storedBodyText } from '../storage/stored-text.js';
import type { LogEntry } from '../storage/types.js';

/**
 * The filter subject of an entry the live feed or a resume read back. Those reads leave bodies over
 * 64 KB out; when a filter reads the body (`needsBody`), such a body's text is read on its own, one
 * at a time (up to the offload threshold, never more).
 */
export async function subjectOfStored(entry: LogEntry, bodies: Pick<BodyReader, 'getBody'>, needsBody: boolean): Promise<FilterSubject> {
    let text = storedBodyText(entry);
    if (text === undefined && needsBody) text = await bodyText(bodies, entry.id);
    return subjectOfEntry(entry, text);
}

/** The stored text of a body (null: none, or the event is gone). */
async function bodyText(bodies: Pick<BodyReader, 'getBody'>, id: string): Promise<string | null> {
    try {
        const body = await bodies.getBody(id);
        return (body.kind === 'json' || body.kind === 'text') && body.raw ? body.raw.toString('utf8') : null;
    } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
    }
}
