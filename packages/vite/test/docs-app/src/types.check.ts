// Not quoted: pins the types the samples' comments claim (the type check fails otherwise).
import { table } from "./table";

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const yes = <T extends true>(t: T) => t;

table.bind({
  actions: {
    select: {
      execute: (input) => {
        yes<Exactly<typeof input, { ids: string[]; mode: "replace" | "add" }>>(true);
      },
    },
  },
});
