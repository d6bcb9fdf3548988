// Unmounts what each test rendered (RTL registers this itself only when vitest's globals are on).
import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

afterEach(() => cleanup());
