import { describe, expect, it } from 'vitest';
import { EngineError } from '../../core/index.js';
import { WireFormatError } from '../wire/wire-format.js';
import { engineErrorFromWire, signalOf } from './engine-requests.js';

describe('engine requests', () => {
  it('engineErrorFromWire names the engine and address of a wire error, and leaves others alone', () => {
    const wire = new WireFormatError('engine_protocol_error', 'expected a JSON object');
    const error = engineErrorFromWire(wire, 'vllm', 'http://127.0.0.1:8000/v1/models');
    expect(error).toBeInstanceOf(EngineError);
    expect(error).toMatchObject({
      code: 'engine_protocol_error',
      engineId: 'vllm',
      address: 'http://127.0.0.1:8000/v1/models',
      cause: wire,
    });
    expect((error as EngineError).message).toContain('expected a JSON object');
    const other = new TypeError('bug');
    expect(engineErrorFromWire(other, 'vllm', 'x')).toBe(other);
  });

  it('signalOf gives a signal field only when there is a signal', () => {
    const signal = AbortSignal.abort();
    expect(signalOf({ signal })).toEqual({ signal });
    expect(signalOf({})).toEqual({});
  });
});
