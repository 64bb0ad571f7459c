// tools.md "Calculator": evaluate an expression with the calculator tool directly.
import { CalculatorTool } from '../src/index.js';

const calc = new CalculatorTool();
const result = await calc.execute({ expression: 'sqrt(144) + 3**2' });
console.log(result.content); // "21.0"
console.log(result.success); // true
