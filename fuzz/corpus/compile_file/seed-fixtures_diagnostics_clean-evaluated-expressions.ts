// expect: clean
import {
  actionContract,
  defineAgentComponentContract,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const AREA = "inventory";
const MAX_DELTA = 1000;
const FIELD = "sku";
const SKU = { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" } as const;
const BaseItem = { type: "object", additionalProperties: false } as const;
const EXTRA_TAGS = ["stock", "warehouse"] as const;
const Meta = { owner: "ops-team", version: 2 } satisfies Record<string, string | number>;

export const stockContract = defineAgentComponentContract({
  type: `${AREA}.stockLevels`,
  description: "Stock levels per item in the " + AREA + " view (" + 3 + " warehouses).",
  priority: -1,
  tags: [AREA, ...EXTRA_TAGS],
  meta: { ...Meta, refreshSeconds: 30 + 30, minDelta: -MAX_DELTA },
  observations: {
    readLevels: observationContract({
      description: `Current levels of the ${AREA} items, at most ${100 + 100} rows.`,
      output: fromJsonSchema({ type: "object" }),
    }),
  },
  actions: {
    adjust: actionContract({
      description: `Adjust the stock of one item by up to ±${MAX_DELTA} units.`,
      input: fromJsonSchema({
        ...BaseItem,
        properties: {
          [FIELD]: SKU,
          delta: { type: "integer", minimum: -MAX_DELTA, maximum: +MAX_DELTA },
          reason: { type: "string", maxLength: 120 } as const,
        },
        required: [FIELD, "delta"],
      } satisfies object),
      effect: "local-state",
      idempotent: false,
    } as const),
  },
});
