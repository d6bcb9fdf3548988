"use client";
// The agent surface lives in the browser: the app (registry, WebMCP exposure) loads there only.
import dynamic from "next/dynamic";

export const ClientApp = dynamic(() => import("@/App").then((m) => m.App), { ssr: false, loading: () => <p>Loading…</p> });
