import type { ReactNode } from "react";
import "@/styles.css";

export const metadata = { title: "devices (Next.js)", icons: { icon: "data:," } };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
