ALTER TABLE "connections" ADD COLUMN "consent_warned_7d_at" bigint;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "consent_warned_1d_at" bigint;--> statement-breakpoint
ALTER TABLE "link_states" ADD COLUMN "binding_hash" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "link_states" ADD COLUMN "purpose" text COLLATE "C" DEFAULT 'link' NOT NULL;