// An ArkType type: the compiler computes exactly what RenameInput.toJsonSchema() returns.
import { type } from "arktype";

export const RenameInput = type({
  id: "/^dev_[a-z0-9]{6,}$/",
  name: "1 <= string <= 64",
});
