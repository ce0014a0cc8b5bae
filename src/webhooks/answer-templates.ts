import type { ErrorDetail } from '../errors.js';
import { MAX_TEMPLATE_BYTES, type AnswerSpec } from '../api/webhook.js';
import { isTemplate, lineColumn, looksLikeJson, parseTemplate, TemplateError, type Template } from './template.js';

// An answer's body and header values are templates when they hold `{{`: parsed once per answer
// plan, checked (with the path and position of each problem) when a webhook is saved.

/** The templates of one answer. */
export interface AnswerTemplates {
    /** The body, when it is a template. */
    body: Template | undefined;
    /** Without a configured Content-Type: whether the rendered body goes out as JSON. */
    bodyLooksJson: boolean;
    /** Header values that are templates, by their configured name. */
    headers: [name: string, template: Template][];
}

/** The body as the text sent: a string as it is, an object or array as JSON. */
export const bodyText = (body: AnswerSpec['body']): string | undefined => (body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));

/** The template of `text`, or undefined when it is none (no `{{`) or does not parse. */
function tryParse(text: string | undefined): Template | undefined {
    if (text === undefined || !isTemplate(text)) return undefined;
    try {
        return parseTemplate(text);
    } catch (error) {
        // Stored by a build that did not check it: the text goes out as it is.
        if (error instanceof TemplateError) return undefined;
        throw error;
    }
}

/** An answer's templates; undefined when neither its body nor a header value is one. */
export function compileAnswerTemplates(spec: Readonly<AnswerSpec>): AnswerTemplates | undefined {
    const body = tryParse(bodyText(spec.body));
    const headers: [string, Template][] = [];
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
        const template = tryParse(value);
        if (template) headers.push([name, template]);
    }
    if (!body && headers.length === 0) return undefined;
    return { body, bodyLooksJson: body !== undefined && looksLikeJson(body), headers };
}

/** The problem of one template text at `path`: too large, or not parsable (with its position). */
function problemOf(text: string, path: string): ErrorDetail | undefined {
    if (!isTemplate(text)) return undefined;
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_TEMPLATE_BYTES) return { path, message: `is a template of ${bytes} bytes; a template may hold at most ${MAX_TEMPLATE_BYTES}` };
    try {
        parseTemplate(text);
        return undefined;
    } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        const { line, column } = lineColumn(text, error.at);
        return { path, message: `${error.message} (at character ${error.at}, line ${line}, column ${column})` };
    }
}

/** The template problems of an answer whose fields sit under `prefix` (`response`, `response.rules.0.answer`). */
export function answerTemplateProblems(spec: Readonly<AnswerSpec>, prefix: string): ErrorDetail[] {
    const problems: ErrorDetail[] = [];
    const text = bodyText(spec.body);
    const body = text === undefined ? undefined : problemOf(text, `${prefix}.body`);
    if (body) problems.push(body);
    for (const [name, value] of Object.entries(spec.headers ?? {})) {
        const problem = problemOf(value, `${prefix}.headers.${name}`);
        if (problem) problems.push(problem);
    }
    return problems;
}
