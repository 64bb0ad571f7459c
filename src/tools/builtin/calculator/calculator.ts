import {
  createToolSpec,
  type ToolArguments,
  type ToolResult,
  type ToolSpec,
} from '../../../core/index.js';
import { BaseTool } from '../../base-tool.js';

type EvaluateExpression = typeof import('./calculator-evaluate.js').evaluateExpression;
let evaluator: Promise<EvaluateExpression> | undefined;

/**
 * The evaluator (lexer, parser, Python number semantics: ~50 KB with Unicode-property regexes), loaded on the
 * first calculation: importing the package should not pay for it.
 */
function loadEvaluator(): Promise<EvaluateExpression> {
  evaluator ??= import('./calculator-evaluate.js').then((module) => module.evaluateExpression);
  return evaluator;
}

/** Evaluates arithmetic with Python's number semantics, whitelisted functions and constants; never uses `eval`. */
export class CalculatorTool extends BaseTool {
  readonly toolId = 'calculator';
  readonly spec: ToolSpec = createToolSpec({
    name: 'calculator',
    description:
      'Evaluate a mathematical expression safely. Supports arithmetic, math functions (sqrt, log, sin, cos), and constants.',
    parameters: {
      type: 'object',
      properties: {
        expression: {
          type: 'string',
          description: "Math expression to evaluate (e.g. '2+3*4', 'sqrt(16)')",
        },
      },
      required: ['expression'],
    },
    category: 'math',
  });

  override async execute(params: ToolArguments): Promise<ToolResult> {
    const expression = params.expression;
    if (expression === undefined || expression === null || expression === '') {
      return this.failure('No expression provided.', 'invalid_arguments');
    }
    if (typeof expression !== 'string') {
      return this.failure(
        `Error: expression must be a string, got ${typeof expression}`,
        'invalid_arguments',
      );
    }
    const outcome = (await loadEvaluator())(expression);
    return outcome.ok ? this.success(outcome.value) : this.failure(`Error: ${outcome.message}`);
  }
}
