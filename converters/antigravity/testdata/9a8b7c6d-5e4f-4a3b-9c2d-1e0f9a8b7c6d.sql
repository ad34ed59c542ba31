-- Written by sample_test.go (go test ./converters/antigravity -run TestScripts -update): A conversation as ccusage's own tests make one: gen_metadata and the trajectory's metadata, no steps table; a model known by its id only.
-- An Antigravity conversation database, the tables ccusage 20.0.24 reads; every string in a blob holds CANARY.
CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY, data BLOB);
INSERT INTO trajectory_metadata_blob VALUES ('main', X'120b08f8b880d8061080e59a771a0d43414e4152592d6272616e6368');
CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB, size INTEGER);
INSERT INTO gen_metadata VALUES (0, X'0a3718fa072214102a180a500a3a0c43414e4152592d6d73672d628a011b12191028180c5a1343414e4152592d726573702d622d7265747279', 57);
