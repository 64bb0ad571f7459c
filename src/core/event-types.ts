/**
 * Every event the original OpenJarvis publishes or declares, keyed by its upper-case name; the values are the
 * wire names (`tool_call_start`) that traces and subscribers see.
 */
export const EventType = {
  INFERENCE_START: 'inference_start',
  INFERENCE_END: 'inference_end',
  TOOL_CALL_START: 'tool_call_start',
  TOOL_CALL_END: 'tool_call_end',
  MEMORY_STORE: 'memory_store',
  MEMORY_RETRIEVE: 'memory_retrieve',
  AGENT_TURN_START: 'agent_turn_start',
  AGENT_TURN_END: 'agent_turn_end',
  TELEMETRY_RECORD: 'telemetry_record',
  TRACE_STEP: 'trace_step',
  TRACE_COMPLETE: 'trace_complete',
  CHANNEL_MESSAGE_RECEIVED: 'channel_message_received',
  CHANNEL_MESSAGE_SENT: 'channel_message_sent',
  SECURITY_SCAN: 'security_scan',
  SECURITY_ALERT: 'security_alert',
  SECURITY_BLOCK: 'security_block',
  SCHEDULER_TASK_START: 'scheduler_task_start',
  SCHEDULER_TASK_END: 'scheduler_task_end',
  CHAT_EXCHANGE_COMPLETED: 'chat_exchange_completed',
  BATCH_START: 'batch_start',
  BATCH_END: 'batch_end',
  TOOL_TIMEOUT: 'tool_timeout',
  LOOP_GUARD_TRIGGERED: 'loop_guard_triggered',
  CAPABILITY_DENIED: 'capability_denied',
  TAINT_VIOLATION: 'taint_violation',
  WORKFLOW_START: 'workflow_start',
  WORKFLOW_NODE_START: 'workflow_node_start',
  WORKFLOW_NODE_END: 'workflow_node_end',
  WORKFLOW_END: 'workflow_end',
  SKILL_EXECUTE_START: 'skill_execute_start',
  SKILL_EXECUTE_END: 'skill_execute_end',
  SESSION_START: 'session_start',
  SESSION_END: 'session_end',
  A2A_TASK_RECEIVED: 'a2a_task_received',
  A2A_TASK_COMPLETED: 'a2a_task_completed',
  OPERATOR_TICK_START: 'operator_tick_start',
  OPERATOR_TICK_END: 'operator_tick_end',
  AGENT_TICK_START: 'agent_tick_start',
  AGENT_TICK_END: 'agent_tick_end',
  AGENT_TICK_ERROR: 'agent_tick_error',
  AGENT_BUDGET_EXCEEDED: 'agent_budget_exceeded',
  AGENT_STALL_DETECTED: 'agent_stall_detected',
  AGENT_LEARNING_STARTED: 'agent_learning_started',
  AGENT_LEARNING_COMPLETED: 'agent_learning_completed',
  AGENT_MESSAGE_RECEIVED: 'agent_message_received',
  AGENT_CHECKPOINT_SAVED: 'agent_checkpoint_saved',
  OPTIMIZE_RUN_START: 'optimize_run_start',
  OPTIMIZE_TRIAL_START: 'optimize_trial_start',
  OPTIMIZE_TRIAL_END: 'optimize_trial_end',
  OPTIMIZE_RUN_END: 'optimize_run_end',
  FEEDBACK_RECEIVED: 'feedback_received',
} as const;

/** One of the event wire names, such as `tool_call_start`. */
export type EventType = (typeof EventType)[keyof typeof EventType];

const EVENT_TYPE_VALUES: ReadonlySet<string> = new Set(Object.values(EventType));

/** True when `value` is one of the known event wire names. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && EVENT_TYPE_VALUES.has(value);
}
