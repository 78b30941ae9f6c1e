// Compiles JSON Schemas with ajv 8 in strict mode (draft 2020-12) and validates documents
// against them, all in one process (tests/test_node_tools.py).
// stdin: {"schemas": [schema, ...], "documents": [{"schema": "<$id>", "name": "...", "data": ...}]}
// stdout: {"compiled": ["<$id>", ...], "problems": ["...", ...]}
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { schemas, documents } = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// strict: true turns every strict check to an error (unknown keywords, types left open,
// required properties not declared, ...), not the default's mix of errors and warnings.
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const compiled = [];
const problems = [];
for (const schema of schemas) {
  try {
    ajv.addSchema(schema);
    ajv.getSchema(schema.$id); // compiles, and throws what strict mode refuses
    compiled.push(schema.$id);
  } catch (error) {
    problems.push(`${schema.$id}: ${error.message}`);
  }
}
for (const { schema, name, data } of documents) {
  const validate = compiled.includes(schema) ? ajv.getSchema(schema) : null;
  if (!validate) continue;
  if (!validate(data)) {
    problems.push(`${name}: ${ajv.errorsText(validate.errors, { dataVar: name })}`);
  }
}
process.stdout.write(JSON.stringify({ compiled, problems }));
