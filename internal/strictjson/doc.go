// Package strictjson decodes hpccgold's JSON inputs (configurations,
// overlays) strictly: encoding/json matches object keys case-insensitively
// ("MAX_STAGE" sets max_stage), lets a repeated key override the earlier
// one, and takes a top-level null as "leave everything as it is". Here the
// input must be one JSON object, every key must be exactly a json tag of the
// target type at its level (case-sensitive), no key may appear twice in an
// object, and nothing may follow the object. Errors name the key's path
// ("hpcc.max_stage") and the rule it broke.
package strictjson
