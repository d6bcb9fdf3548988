// An ArkType type: the compiler computes exactly what LabelInput.toJsonSchema() returns.
import { type } from "arktype";

export const LabelInput = type({
  id: "/^dev_[a-z0-9]{6,}$/",
  label: "1 <= string <= 64",
});
