import type { ComponentChildren } from "preact";
import type { Resource } from "../use-resource.ts";
import { Empty, ErrorNotice, Loading } from "./ui.tsx";

/** A loaded list's states: its error, loading (first load only), empty, or the list itself. */
export function ListState(props: {
  resource: Resource<unknown>;
  count: number;
  empty: ComponentChildren;
  children: ComponentChildren;
}) {
  const { resource } = props;
  return (
    <>
      <ErrorNotice error={resource.error} />
      {resource.data === undefined ? (
        resource.loading && <Loading />
      ) : props.count === 0 ? (
        <Empty>{props.empty}</Empty>
      ) : (
        props.children
      )}
    </>
  );
}
