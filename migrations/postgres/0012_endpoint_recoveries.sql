CREATE TABLE "endpoint_recoveries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"endpoint_id" text COLLATE "C" NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"since" bigint NOT NULL,
	"until" bigint NOT NULL,
	"status" text COLLATE "C" DEFAULT 'running' NOT NULL,
	"total" integer NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"unsent" integer DEFAULT 0 NOT NULL,
	"cursor_created_at" bigint,
	"cursor_event_id" text COLLATE "C",
	"next_step_at" bigint,
	"stop_reason" text COLLATE "C",
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "recovery_id" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "endpoint_recoveries" ADD CONSTRAINT "endpoint_recoveries_endpoint_id_webhook_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."webhook_endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoint_recoveries" ADD CONSTRAINT "endpoint_recoveries_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "endpoint_recoveries_running_idx" ON "endpoint_recoveries" USING btree ("endpoint_id") WHERE status = 'running';--> statement-breakpoint
CREATE INDEX "endpoint_recoveries_account_idx" ON "endpoint_recoveries" USING btree ("service_account_id","created_at");--> statement-breakpoint
CREATE INDEX "endpoint_recoveries_due_idx" ON "endpoint_recoveries" USING btree ("status","next_step_at");--> statement-breakpoint
CREATE INDEX "deliveries_recovery_idx" ON "deliveries" USING btree ("recovery_id");