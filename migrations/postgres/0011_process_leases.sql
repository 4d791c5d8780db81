CREATE TABLE "event_streams" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"service_account_id" text COLLATE "C" NOT NULL,
	"process_id" text COLLATE "C" NOT NULL,
	"opened_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_processes" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"host" text COLLATE "C" NOT NULL,
	"pid" integer NOT NULL,
	"pid_started_at" text COLLATE "C",
	"started_at" bigint NOT NULL,
	"heartbeat_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "lease_holder" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "event_streams" ADD CONSTRAINT "event_streams_service_account_id_service_accounts_id_fk" FOREIGN KEY ("service_account_id") REFERENCES "public"."service_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_streams" ADD CONSTRAINT "event_streams_process_id_service_processes_id_fk" FOREIGN KEY ("process_id") REFERENCES "public"."service_processes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "event_streams_account_idx" ON "event_streams" USING btree ("service_account_id");