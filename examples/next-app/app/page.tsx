// A Server Component: it may import contract modules (inert data; nothing of the page runtime
// comes with them) and renders the client app, which registers the contracts in the browser.
import { rebootDevices } from "@/domain/devices";
import { ClientApp } from "./ClientApp";

export default function Page() {
  return (
    <>
      <p className="server-note" data-contract={rebootDevices.id}>
        Rendered on the server next to {rebootDevices.id}.
      </p>
      <ClientApp />
    </>
  );
}
