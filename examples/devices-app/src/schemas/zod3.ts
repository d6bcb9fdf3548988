// A zod 3 schema (zod 4 ships zod 3's API as "zod/v3"; zod 3.25 apps import it from "zod"),
// converted with zod-to-json-schema: the compiler computes exactly what zodToJsonSchema returns
// (without its draft-07 `$schema`, which the page's fromStandardSchema drops the same way).
import { z } from "zod/v3";

export const TagInput = z.object({
  ids: z.array(z.string().regex(/^dev_[a-z0-9]{6,}$/)).min(1).max(50),
  tag: z.string().min(1).max(32).describe("The tag to add, e.g. lab"),
});
