import { validationError, type ErrorDetail } from '../errors.js';
import { answerHeaderDetails } from '../lib/answer-headers.js';
import { boundedValidator } from './bounded-validation.js';
import { answerTemplateProblems } from './answer-templates.js';
import { parseWhen } from './rules.js';
import { WEBHOOK_CREATE_SCHEMA, WEBHOOK_PATCH_SCHEMA, type ResponseSpec, type WebhookChange } from '../api/webhook.js';

export type { WebhookChange };

// The schemas are the API's (src/api/webhook.ts): the OpenAPI document shows the very ones validated here.
const validators = { create: boundedValidator(WEBHOOK_CREATE_SCHEMA), patch: boundedValidator(WEBHOOK_PATCH_SCHEMA) };

/**
 * Validates a POST (`create`) or PATCH (`patch`) body, parsed from `text` when given (a large one is
 * then measured in its text); throws 400 with `details` listing the problems (errors.ts validationError).
 */
export function parseWebhookChange(kind: keyof typeof validators, body: unknown, text?: string): WebhookChange {
    const problems = validators[kind](body, text);
    if (problems === undefined) {
        const response = (body as WebhookChange).response;
        const refused = responseHeaderDetails(response);
        if (refused.length > 0) throw validationError('The answer sets headers only the server may set', refused);
        const problems = responseRuleDetails(response);
        if (problems.length === 0) return body as WebhookChange;
        throw validationError('The answer has a rule condition or a template that cannot be used', problems);
    }
    throw validationError('The request body does not match the webhook schema', problems.details, problems.total);
}

/** The refused header names of a `response`: its own headers', each sequence step's and each rule's. */
function responseHeaderDetails(response: ResponseSpec | null | undefined): ErrorDetail[] {
    const details = response?.headers ? answerHeaderDetails(response.headers, 'response.headers') : [];
    response?.sequence?.forEach((step, i) => {
        if (step.headers) details.push(...answerHeaderDetails(step.headers, `response.sequence.${i}.headers`));
    });
    response?.rules?.forEach((rule, i) => {
        if (rule.answer.headers) details.push(...answerHeaderDetails(rule.answer.headers, `response.rules.${i}.answer.headers`));
    });
    return details;
}

/** The problems of a `response`'s rule conditions (`when`) and templates, each at its path (and a template's at its position). */
function responseRuleDetails(response: ResponseSpec | null | undefined): ErrorDetail[] {
    if (!response) return [];
    const details = answerTemplateProblems(response, 'response');
    response.sequence?.forEach((step, i) => details.push(...answerTemplateProblems(step, `response.sequence.${i}`)));
    response.rules?.forEach((rule, i) => {
        details.push(...parseWhen(rule.when, `response.rules.${i}.when`).problems);
        details.push(...answerTemplateProblems(rule.answer, `response.rules.${i}.answer`));
    });
    return details;
}
