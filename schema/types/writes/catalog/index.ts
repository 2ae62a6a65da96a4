// Placeholder: the files of this folder are imported here (see schema/index.ts).
