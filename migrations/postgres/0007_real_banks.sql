CREATE TABLE "link_states" (
	"state_hash" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"connection_id" text COLLATE "C" NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "consent_expires_at" bigint;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "provider_secret" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "next_pull_at" bigint;--> statement-breakpoint
ALTER TABLE "link_states" ADD CONSTRAINT "link_states_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_states" ADD CONSTRAINT "link_states_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_states_connection_idx" ON "link_states" USING btree ("connection_id");