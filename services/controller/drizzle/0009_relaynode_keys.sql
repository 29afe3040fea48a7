CREATE TABLE "controller"."relaynode_keys" (
	"relaynode_id" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"pinned_at" bigint NOT NULL
);
