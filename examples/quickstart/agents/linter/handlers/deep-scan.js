export default function deepScan() {
  return new Promise((resolve) => setTimeout(() => resolve({ findings: 0 }), 300));
}
