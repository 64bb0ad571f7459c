// A tool written as one object with a zod schema: arguments are typed and validated before execute runs.
import { z } from 'zod';
import { defineTool, ToolExecutor } from '../src/index.js';

const weather = defineTool({
  name: 'weather',
  description: 'Get the forecast for a city.',
  category: 'demo',
  parameters: z.object({
    city: z.string().describe('City name'),
    days: z.number().int().min(1).max(7).default(1).describe('Days ahead'),
  }),
  execute: ({ city, days }) => `Sunny in ${city} for the next ${days} day(s).`,
});

const executor = new ToolExecutor([weather]);
console.log(
  (await executor.execute({ id: 'c1', name: 'weather', arguments: '{"city": "Oslo"}' })).content,
);
// A model's mistake comes back as a result it can read and repair:
console.log(
  (await executor.execute({ id: 'c2', name: 'weather', arguments: '{"city": "Oslo", "days": 30}' }))
    .content,
);
