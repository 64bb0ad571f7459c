import { JarvisError, type TokenUsage } from '../core/index.js';

/** Price of one model in US dollars per million tokens. */
export interface ModelPricing {
  readonly promptUsdPerMillionTokens: number;
  readonly completionUsdPerMillionTokens: number;
}

/** Prices keyed by model identifier, exactly as passed in `GenerateOptions.model`. */
export type PricingTable = Readonly<Record<string, ModelPricing>>;

const TOKENS_PER_MILLION = 1_000_000;

/** Looks up model prices and turns token counts into dollars; unknown models cost 0. */
export class PriceList {
  readonly #prices: ReadonlyMap<string, ModelPricing>;

  /** Checks every price (finite and not negative) and throws a `JarvisError` naming the first bad one. */
  constructor(table: PricingTable = {}) {
    const prices = new Map<string, ModelPricing>();
    // Object.entries only sees own keys, so a model called `constructor` never hits Object.prototype.
    for (const [model, pricing] of Object.entries(table)) {
      checkPricing(model, pricing);
      prices.set(model, {
        promptUsdPerMillionTokens: pricing.promptUsdPerMillionTokens,
        completionUsdPerMillionTokens: pricing.completionUsdPerMillionTokens,
      });
    }
    this.#prices = prices;
  }

  /** Cost in US dollars of `usage` on `model`; 0 when the model has no price. */
  costUsd(model: string, usage: TokenUsage): number {
    const pricing = this.#prices.get(model);
    if (pricing === undefined) return 0;
    return (
      (usage.promptTokens * pricing.promptUsdPerMillionTokens +
        usage.completionTokens * pricing.completionUsdPerMillionTokens) /
      TOKENS_PER_MILLION
    );
  }
}

function checkPricing(model: string, pricing: unknown): void {
  for (const field of ['promptUsdPerMillionTokens', 'completionUsdPerMillionTokens'] as const) {
    const value =
      typeof pricing === 'object' && pricing !== null
        ? (pricing as Record<string, unknown>)[field]
        : undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new JarvisError({
        code: 'invalid_argument',
        message: `pricing for model '${model}': '${field}' must be a finite number of US dollars >= 0 (got ${String(value)})`,
      });
    }
  }
}
