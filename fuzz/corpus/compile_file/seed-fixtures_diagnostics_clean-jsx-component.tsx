// expect: clean
import { useState } from "react";
import { actionContract, defineAgentComponentContract, fromJsonSchema, observationContract } from "@agent-surface/core";

const Rating = { type: "integer", minimum: 1, maximum: 5 } as const;

export const ratingContract = defineAgentComponentContract({
  type: "reviews.starRating",
  description: "The star rating widget of the review form.",
  observations: {
    readRating: observationContract({
      description: "The stars currently selected (null if none).",
      output: fromJsonSchema({ type: "object", properties: { stars: { anyOf: [Rating, { type: "null" }] } } }),
    }),
  },
  actions: {
    rate: actionContract({
      description: "Select a number of stars.",
      input: fromJsonSchema({ type: "object", properties: { stars: Rating }, required: ["stars"] }),
      effect: "local-state",
    }),
  },
});

export function StarRating({ onChange }: { onChange: (n: number) => void }) {
  const [stars, setStars] = useState<number | null>(null);
  return (
    <div role="radiogroup">
      {[1, 2, 3, 4, 5].map((n) => (
        <button key={n} aria-checked={stars === n} onClick={() => (setStars(n), onChange(n))}>
          {n <= (stars ?? 0) ? "★" : "☆"}
        </button>
      ))}
    </div>
  );
}
