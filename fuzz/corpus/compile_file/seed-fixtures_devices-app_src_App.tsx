import { AppNav } from "./routes/AppNav";
import { DevicesTable } from "./components/DevicesTable";

export function App() {
  return (
    <main>
      <AppNav />
      <DevicesTable devices={[]} />
    </main>
  );
}
