// The API's shapes by the name the OpenAPI document gives them (components/schemas), in its order.
import { LOG_ENTRY_SCHEMA, LOG_FILTERS_SCHEMA, LOG_PAGE_CURSOR_SCHEMA, LOG_PAGE_OFFSET_SCHEMA, LOG_SUMMARY_SCHEMA } from '../capture.js';
import { ANSWERED_BY_SCHEMA, FORM_FILE_SCHEMA, FORM_SCHEMA, FORWARD_OUTCOME_SCHEMA, REPLAY_RECORD_SCHEMA, SORT_RULE_SCHEMA } from '../capture.js';
import { DELIVERIES_RECORDED_SCHEMA, DELIVERY_REPORT_SCHEMA, DELIVERY_REPORTS_SCHEMA } from '../delivery.js';
import { ERROR_SCHEMA, INGEST_RATE_LIMIT_SCHEMA, PAYLOAD_TOO_LARGE_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../errors.js';
import { CHECK_SCHEMA, HEALTH_SCHEMA, INFO_SCHEMA, READINESS_SCHEMA, SYSTEM_METRICS_SCHEMA } from '../info.js';
import { REPLAY_ERROR_SCHEMA, REPLAY_RESULT_SCHEMA } from '../replay.js';
import { JOB_EDITS_SCHEMA, REPLAY_JOB_CREATE_SCHEMA, REPLAY_JOB_DRY_RUN_SCHEMA, REPLAY_JOB_LIST_SCHEMA, REPLAY_JOB_RETRY_SCHEMA, REPLAY_JOB_SCHEMA } from '../replay-jobs.js';
import { ACTIVE_WEBHOOK_SCHEMA, ANSWER_SCHEMA, MANAGED_WEBHOOK_SCHEMA, RATE_LIMIT_SCHEMA, RESPONSE_SCHEMA, RULE_SCHEMA, STATUS_OVERRIDE_BODY_SCHEMA } from '../webhook.js';
import { WEBHOOK_CREATE_SCHEMA, WEBHOOK_PATCH_SCHEMA } from '../webhook.js';

/** Every named schema; wherever one of these objects is used, the document refers to it by this name. */
export const SCHEMAS: Readonly<Record<string, object>> = {
    Error: ERROR_SCHEMA,
    SchemaValidationError: VALIDATION_ERROR_SCHEMA,
    PayloadTooLargeError: PAYLOAD_TOO_LARGE_SCHEMA,
    IngestRateLimitError: INGEST_RATE_LIMIT_SCHEMA,
    StatusOverrideBody: STATUS_OVERRIDE_BODY_SCHEMA,
    ReplayResult: REPLAY_RESULT_SCHEMA,
    ReplayError: REPLAY_ERROR_SCHEMA,
    ReplayJob: REPLAY_JOB_SCHEMA,
    ReplayJobCreate: REPLAY_JOB_CREATE_SCHEMA,
    ReplayJobEdits: JOB_EDITS_SCHEMA,
    ReplayJobRetry: REPLAY_JOB_RETRY_SCHEMA,
    ReplayJobDryRun: REPLAY_JOB_DRY_RUN_SCHEMA,
    ReplayJobList: REPLAY_JOB_LIST_SCHEMA,
    Webhook: ACTIVE_WEBHOOK_SCHEMA,
    Info: INFO_SCHEMA,
    LogSummary: LOG_SUMMARY_SCHEMA,
    LogEntry: LOG_ENTRY_SCHEMA,
    ReplayRecord: REPLAY_RECORD_SCHEMA,
    DeliveryReport: DELIVERY_REPORT_SCHEMA,
    DeliveryReports: DELIVERY_REPORTS_SCHEMA,
    DeliveriesRecorded: DELIVERIES_RECORDED_SCHEMA,
    ForwardOutcome: FORWARD_OUTCOME_SCHEMA,
    AnsweredBy: ANSWERED_BY_SCHEMA,
    Form: FORM_SCHEMA,
    FormFile: FORM_FILE_SCHEMA,
    SortRule: SORT_RULE_SCHEMA,
    LogFilters: LOG_FILTERS_SCHEMA,
    LogPageOffset: LOG_PAGE_OFFSET_SCHEMA,
    LogPageCursor: LOG_PAGE_CURSOR_SCHEMA,
    Health: HEALTH_SCHEMA,
    Check: CHECK_SCHEMA,
    Readiness: READINESS_SCHEMA,
    SystemMetrics: SYSTEM_METRICS_SCHEMA,
    WebhookAnswer: ANSWER_SCHEMA,
    AnswerRule: RULE_SCHEMA,
    RateLimitSimulation: RATE_LIMIT_SCHEMA,
    WebhookResponse: RESPONSE_SCHEMA,
    ManagedWebhook: MANAGED_WEBHOOK_SCHEMA,
    WebhookCreate: WEBHOOK_CREATE_SCHEMA,
    WebhookPatch: WEBHOOK_PATCH_SCHEMA,
};
