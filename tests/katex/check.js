// Reads a JSON list of LaTeX formulas on stdin; prints a JSON list of [index, error] for those
// KaTeX (throwOnError, strict) cannot parse or render. Used by the equations tests.
const katex = require("katex");
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const failures = [];
  JSON.parse(input).forEach((formula, index) => {
    try {
      const html = katex.renderToString(formula, { throwOnError: true, strict: "error", displayMode: true });
      if (html.includes("\uFFFD")) failures.push([index, "replacement character in the rendering"]);
    } catch (error) {
      failures.push([index, String(error.message || error)]);
    }
  });
  process.stdout.write(JSON.stringify(failures));
});
